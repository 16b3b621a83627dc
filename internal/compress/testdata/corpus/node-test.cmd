node --test nodetest/
# root /home/dev/js
