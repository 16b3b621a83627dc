python3 -m pytest -q -p no:cacheprovider tests/test_cart.py
# root /home/dev/python
