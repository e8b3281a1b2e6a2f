class myBot:
    def nextMove(self, moves, remaining):
        choices = [m for m in remaining if m != 1]
        return min(choices) if choices else 1
