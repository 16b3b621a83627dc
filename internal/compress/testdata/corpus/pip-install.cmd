env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null python3 -m pip install --no-index --no-build-isolation --target .site .
# root /home/dev/python/pkg
