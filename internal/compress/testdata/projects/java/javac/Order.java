public class Order {
    public static void main(String[] args) {
        Invoice inv = new Invoice(null);
        int n = inv.count("x");
        System.out.println(n);
    }
}
