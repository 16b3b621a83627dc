npx vitest run vitest/queue
# root /home/dev/js
