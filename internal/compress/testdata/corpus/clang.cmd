clang -Wall -Wextra -c util.c main.c
# root /home/dev/c
