require 'net/http'
require 'json'

uri = URI(ENV.fetch('ARTIFACT_API', 'https://artifacts.example.com/api/list'))
req = Net::HTTP::Get.new(uri)
req.basic_auth(ENV.fetch('ARTIFACT_USER'), ENV.fetch('ARTIFACT_PASS'))

res = Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == 'https') do |http|
  http.request(req)
end
JSON.parse(res.body).each { |a| puts a['name'] }
