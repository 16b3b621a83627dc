go test ./calc/ ./ok/ ./panicky/
# root /home/dev/go
