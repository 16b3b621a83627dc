npm install --no-audit --no-fund
# root /home/dev/js/deps
