require 'base64'
require 'json'

def read_prefs(cookie)
  return {} if cookie.nil? || cookie.empty?

  JSON.parse(Base64.urlsafe_decode64(cookie))
rescue ArgumentError, JSON::ParserError
  {}
end

prefs = read_prefs(ARGV[0])
puts "theme: #{prefs.fetch('theme', 'light')}"
