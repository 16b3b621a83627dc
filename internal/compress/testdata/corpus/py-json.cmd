python3 -c "import json; json.loads('{bad')"
# root /home/dev/python/scratch
