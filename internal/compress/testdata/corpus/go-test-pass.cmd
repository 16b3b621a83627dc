go test -v ./ok/
# root /home/dev/go
