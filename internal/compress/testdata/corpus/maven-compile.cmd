mvn -B -o -Dmaven.repo.local=/usr/share/maven-repo compile
# root /home/dev/java/broken
