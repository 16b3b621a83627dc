python3 -m pytest -p no:cacheprovider tests
# root /home/dev/python/pricing
