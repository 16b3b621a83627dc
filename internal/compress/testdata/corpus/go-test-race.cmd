go test -race ./race/
# root /home/dev/go
