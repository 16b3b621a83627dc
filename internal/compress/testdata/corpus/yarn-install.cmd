rm -rf node_modules pnpm-lock.yaml && npx -y yarn@1.22.22 install
# root /home/dev/js/deps
