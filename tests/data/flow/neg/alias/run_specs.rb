#!/usr/bin/env ruby
# bin/ci - runs lint and specs
m = Kernel.method(:system)

steps = [
  %w[bundle exec rubocop],
  %w[bundle exec rspec --format progress],
]

steps.each do |step|
  puts "+ #{step.join(' ')}"
  ok = m.call(*step)
  abort("#{step.join(' ')} failed") unless ok
end

puts 'all green'
