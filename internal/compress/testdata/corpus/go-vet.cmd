go vet ./vetme/
# root /home/dev/go
