python3 config.py
# root /home/dev/python/scratch
