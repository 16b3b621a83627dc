go test -v ./calc/
# root /home/dev/go
