python3 -m pytest -v -p no:cacheprovider tests
# root /home/dev/python/pricing
