python3 deep.py
# root /home/dev/python/scratch
