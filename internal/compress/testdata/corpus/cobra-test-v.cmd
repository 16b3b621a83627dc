go test -v .
# root /home/dev/cobra
