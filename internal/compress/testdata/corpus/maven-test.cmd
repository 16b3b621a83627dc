mvn -B -o -Dmaven.repo.local=/usr/share/maven-repo test
# root /home/dev/java/shop
