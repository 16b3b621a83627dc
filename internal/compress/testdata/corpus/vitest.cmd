npx vitest run vitest/stack.test.mjs
# root /home/dev/js
