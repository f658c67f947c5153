print("voicecall")
