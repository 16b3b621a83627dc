go test ./panicky/
# root /home/dev/go
