python3 scratch.py api worker
# root /home/dev/python/scratch
