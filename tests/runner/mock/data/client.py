# Sends "hello" to the echo server and prints what came back, or the end of file.
import socket
c = socket.create_connection(("127.0.0.1", int(open("port").read())))
c.sendall(b"hello")
print("client got", c.recv(100).decode() or "end of file")
