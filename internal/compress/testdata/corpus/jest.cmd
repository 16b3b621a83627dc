npx jest --ci
# root /home/dev/js
