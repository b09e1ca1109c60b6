# A TCP echo server on 127.0.0.1 (its port in the file port), one client.
# The port file is renamed into place after listen(): a test's control
# block waits for that rename (wait_call(rename)), then the client reads it.
import os, socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
with open("port.tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename("port.tmp", "port")
c, _ = s.accept()
while True:
    try:
        d = c.recv(100)
    except OSError as e:
        # the client hears why, then the end of the connection
        c.sendall(("error: " + e.strerror).encode())
        break
    if not d:
        break
    c.sendall(d.upper())
