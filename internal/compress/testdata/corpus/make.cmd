make -k CC=gcc
# root /home/dev/c
