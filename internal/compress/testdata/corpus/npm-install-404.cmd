npm install freshctx-corpus-no-such-package
# root /home/dev/js/deps
