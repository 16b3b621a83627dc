python3 -m pytest -v -p no:cacheprovider tests/test_cart.py
# root /home/dev/python
