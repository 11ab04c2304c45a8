import rumps

WORK_MIN = 25


class Focus(rumps.App):
    def __init__(self):
        super().__init__("25:00")
        self.left = WORK_MIN * 60
        self.timer = rumps.Timer(self.tick, 1)

    @rumps.clicked("Start")
    def start(self, _):
        self.timer.start()

    def tick(self, _):
        self.left -= 1
        self.title = f"{self.left // 60:02d}:{self.left % 60:02d}"
        if self.left <= 0:
            self.timer.stop()
            rumps.notification("Focus", "", "Time for a break")


Focus().run()
