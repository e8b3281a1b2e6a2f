# A seed-002 style bot, written as the seed asks: class myBot with nextMove(moves, remaining, time).
import random


class myBot:
    def nextMove(self, moves, remaining, time):
        if remaining:
            choices = [m for m in remaining if m != 1]
            return random.choice(choices) if choices else 1
        n = random.randint(2, 1000)
        return n
