go test -run 'Args|Fish' -v .
# root /home/dev/cobra
