# Writes the day its clock says into clock.txt, every 20 ms, forever.
import os, time
while True:
    with open("clock.tmp", "w") as f:
        f.write(time.strftime("%Y-%m-%d %H:%M\n", time.gmtime()))
    os.rename("clock.tmp", "clock.txt")
    time.sleep(0.02)
