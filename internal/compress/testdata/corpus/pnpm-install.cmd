rm -rf node_modules package-lock.json && npx -y pnpm@9.15.9 install
# root /home/dev/js/deps
