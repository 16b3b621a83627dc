npx eslint src
# root /home/dev/js
