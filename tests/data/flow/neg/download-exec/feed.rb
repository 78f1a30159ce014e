require 'net/http'
require 'rexml/document'

xml = Net::HTTP.get(URI('https://blog.example.com/feed.xml'))
doc = REXML::Document.new(xml)
doc.elements.each('rss/channel/item/title') do |t|
  puts "- #{t.text}"
end
