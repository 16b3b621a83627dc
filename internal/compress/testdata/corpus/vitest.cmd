npx vitest run
# root /home/dev/js
