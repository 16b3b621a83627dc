cd merge && git merge feature
# root /home/dev/generic
