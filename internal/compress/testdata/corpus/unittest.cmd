python3 -m unittest -v tests.test_unit
# root /home/dev/python
