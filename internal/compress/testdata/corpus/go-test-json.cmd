go test -json ./calc/
# root /home/dev/go
