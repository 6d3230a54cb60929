set pagination off
set confirm off
set breakpoint pending on
set cuda break_on_launch none
break locals.cu:20
run
cuda thread (3,0,0)
frame
info args
print '%r35'
print '%rd17'
print '%p3'
next
frame
info locals
delete
continue
