require 'socket'

host = ARGV.fetch(0, 'localhost')
port = Integer(ARGV.fetch(1, '2000'))
sock = TCPSocket.new(host, port)

reader = Thread.new do
  while (line = sock.gets)
    puts "<< #{line}"
  end
end

while (msg = $stdin.gets)
  sock.puts(msg)
end
sock.close
reader.join
