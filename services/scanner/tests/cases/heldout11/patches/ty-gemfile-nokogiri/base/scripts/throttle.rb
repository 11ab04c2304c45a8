# Simple one-request-per-interval throttle.
class Throttle
  def initialize(interval = 1.0)
    @interval = interval
    @last = Time.at(0)
  end

  def wait
    delta = Time.now - @last
    sleep(@interval - delta) if delta < @interval
    @last = Time.now
  end
end
