GOMODCACHE=$PWD/.modcache GOFLAGS=-modcacherw go build ./... && rm -rf .modcache
# root /home/dev/cobra
