import java.util.List;

public class Invoice {
    private final List<String> lines;

    public Invoice(List<String> lines) {
        this.lines = lines;
    }

    public int count() {
        return lines.size;
    }

    public String first() {
        String s = lines.get(0);
        return s;
    }

    public int total() {
        return amount * 2;
    }
}
