javac Invoice.java Order.java
# root /home/dev/java/javac
