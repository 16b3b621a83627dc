for i in $(seq 300); do echo "ok step $i"; done; echo 'error: step 301: no space left on device' >&2; exit 1
# root /home/dev/c
