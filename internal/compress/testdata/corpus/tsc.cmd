npx tsc -p .
# root /home/dev/js
