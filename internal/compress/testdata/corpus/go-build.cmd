go build ./broken/
# root /home/dev/go
