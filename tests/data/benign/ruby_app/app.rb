require "sinatra"
require "net/http"
require "json"

API = URI(ENV.fetch("STATUS_API", "http://localhost:8080"))

get "/status" do
  content_type :json
  res = Net::HTTP.get_response(URI.join(API, "/v1/status"))
  halt 502, { error: "upstream" }.to_json unless res.is_a?(Net::HTTPSuccess)
  res.body
end

post "/reports" do
  report = JSON.parse(request.body.read)
  uri = URI.join(API, "/v1/reports")
  res = Net::HTTP.post(uri, report.to_json, "Content-Type" => "application/json")
  status res.code.to_i
end
