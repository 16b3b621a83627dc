go test -json .
# root /home/dev/cobra
